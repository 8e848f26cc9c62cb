// The HTTP server's C interface over libmicrohttpd: one polling thread (epoll) accepts
// connections and reads requests; each complete request is handed to the caller with its
// connection suspended, and the caller answers it from any thread with chs_respond.
#ifndef CHTTPSERVER_H
#define CHTTPSERVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct chs_server chs_server;
typedef struct chs_request chs_request;

// Called on the polling thread with a complete request whose connection is suspended. The
// callee owns one reference: it must call chs_respond exactly once, from any thread.
typedef void (*chs_request_handler)(void *context, chs_request *request);

// Called from chs_server_sweep for an unanswered request whose client has gone away (closed
// or reset its connection), once per request.
typedef void (*chs_gone_handler)(void *context, uint64_t request_id);

typedef struct {
  // An IPv4 or IPv6 address literal to listen on; NULL or "" listens on every IPv4 address.
  const char *host;
  // 0 picks a free port (see chs_server_port).
  uint16_t port;
  // The most connections open at once; more wait in the listen backlog.
  unsigned connection_limit;
  // The listen backlog's length.
  unsigned backlog;
  // Seconds a connection may stay idle (no bytes read or written) before it is closed.
  unsigned idle_timeout_seconds;
  // Bytes of memory per connection for the request line and headers; larger headers get 431.
  size_t header_limit;
  // The largest request body (or multipart `image` field) accepted; larger ones get 413.
  size_t body_limit;
  void *context;
  chs_request_handler on_request;
  chs_gone_handler on_gone;
} chs_config;

// Starts listening. Returns 0, or -1 with a message in `error`.
int chs_server_start(const chs_config *config, chs_server **server, char *error,
                     size_t error_size);
// The port the server listens on.
uint16_t chs_server_port(const chs_server *server);
// Stops accepting new connections; requests already read are still answered.
void chs_server_quiesce(chs_server *server);
// Calls on_gone for every unanswered request whose client has disconnected. Returns the number
// of unanswered requests.
size_t chs_server_sweep(chs_server *server);
// Closes every connection and frees the server. Requests not yet answered are answered 503.
void chs_server_stop(chs_server *server);
// The requests handed to the caller whose response has not yet been sent whole (or whose
// connection has not yet closed): a graceful stop waits for this to reach 0.
unsigned chs_server_unfinished(const chs_server *server);
// The number of connections open now.
unsigned chs_server_connections(const chs_server *server);

// The request's number, unique within its server.
uint64_t chs_request_id(const chs_request *request);
// The method (GET, POST, ...).
const char *chs_request_method(const chs_request *request);
// The path, without the query string, as the client sent it (percent-encoding kept).
const char *chs_request_path(const chs_request *request);
// The value of a request header (case-insensitive name), or NULL.
const char *chs_request_header(const chs_request *request, const char *name);
// Takes the body: the raw body, or the multipart/form-data field `image` when the request was
// multipart (*multipart set to 1). The caller owns the bytes (NULL when empty) and frees them
// with chs_free_body; a second call gives NULL.
uint8_t *chs_request_take_body(chs_request *request, size_t *size, int *multipart);
// Frees a body chs_request_take_body gave.
void chs_free_body(void *body);
// An error the server found reading the request (413 body too large, 400 a multipart body
// without an `image` field or cut short), with a short code; 0 when the request was read whole.
unsigned chs_request_error(const chs_request *request, const char **code);

// Answers a request and releases it: status, content type, extra headers as "Name: value"
// lines joined by "\n" (or NULL), and the body (copied). Safe from any thread.
void chs_respond(chs_request *request, unsigned status, const char *content_type,
                 const char *headers, const uint8_t *body, size_t size);

// Ignores SIGTERM and SIGINT (and SIGPIPE, which a client closing its connection would raise),
// so that a dispatch signal source can receive the first two and the server can stop cleanly.
void chs_ignore_termination_signals(void);
// SIGTERM's and SIGINT's numbers.
int chs_sigterm(void);
int chs_sigint(void);

#ifdef __cplusplus
}
#endif

#endif
