// The HTTP server over libmicrohttpd (see include/CHTTPServer.h).
//
// Lifetimes: a request has two references while the caller holds it, the polling thread's
// (dropped when libmicrohttpd reports the request finished) and the caller's (dropped by
// chs_respond). The server struct is referenced by the creator and by every request handed
// out, so a chs_respond after chs_server_stop touches only memory that is still there.
#define _GNU_SOURCE
#include "CHTTPServer.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct chs_server {
  struct MHD_Daemon *daemon;
  chs_config config;
  pthread_mutex_t lock;
  atomic_int refs;
  atomic_uint_fast64_t next_id;
  atomic_uint unfinished;
  int stopped;
  chs_request *pending;  // handed to the caller, not yet answered (a doubly linked list)
  uint16_t port;
};

struct chs_request {
  atomic_int refs;
  chs_server *server;
  struct MHD_Connection *connection;
  uint64_t id;
  int fd;
  char *method;
  char *path;
  uint8_t *body;
  size_t size;
  size_t capacity;
  int multipart;
  int image_found;
  struct MHD_PostProcessor *post;
  unsigned error;
  const char *error_code;
  int handed;
  int answered;
  int gone_reported;
  struct MHD_Response *response;
  unsigned response_status;
  chs_request *previous;
  chs_request *next;
};

static const char *const json_type = "application/json";

static void server_release(chs_server *server) {
  if (atomic_fetch_sub(&server->refs, 1) == 1) {
    pthread_mutex_destroy(&server->lock);
    free(server);
  }
}

static void request_release(chs_request *request) {
  if (atomic_fetch_sub(&request->refs, 1) != 1) return;
  if (request->post != NULL) MHD_destroy_post_processor(request->post);
  if (request->response != NULL) MHD_destroy_response(request->response);
  chs_server *server = request->server;
  free(request->method);
  free(request->path);
  free(request->body);
  free(request);
  server_release(server);
}

// Appends bytes to the body, refusing to grow past the limit.
static int append_body(chs_request *request, const char *data, size_t size) {
  size_t limit = request->server->config.body_limit;
  if (size > limit || request->size > limit - size) return 0;
  if (request->size + size > request->capacity) {
    size_t capacity = request->capacity == 0 ? 64 * 1024 : request->capacity;
    while (capacity < request->size + size) capacity *= 2;
    if (capacity > limit) capacity = limit;
    uint8_t *grown = realloc(request->body, capacity);
    if (grown == NULL) return 0;
    request->body = grown;
    request->capacity = capacity;
  }
  memcpy(request->body + request->size, data, size);
  request->size += size;
  return 1;
}

static enum MHD_Result post_field(void *context, enum MHD_ValueKind kind, const char *key,
                                  const char *filename, const char *content_type,
                                  const char *transfer_encoding, const char *data,
                                  uint64_t offset, size_t size) {
  (void)kind;
  (void)filename;
  (void)content_type;
  (void)transfer_encoding;
  (void)offset;
  chs_request *request = context;
  if (key == NULL || strcmp(key, "image") != 0) return MHD_YES;
  request->image_found = 1;
  if (size == 0) return MHD_YES;
  if (!append_body(request, data, size)) {
    request->error = 413;
    request->error_code = "body_too_large";
    return MHD_NO;
  }
  return MHD_YES;
}

static enum MHD_Result queue_json(struct MHD_Connection *connection, unsigned status,
                                  const char *code, const char *message) {
  char body[320];
  int length = snprintf(body, sizeof body, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}\n",
                        code, message);
  if (length < 0) return MHD_NO;
  struct MHD_Response *response =
      MHD_create_response_from_buffer((size_t)length, body, MHD_RESPMEM_MUST_COPY);
  if (response == NULL) return MHD_NO;
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, json_type);
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
  enum MHD_Result result = MHD_queue_response(connection, status, response);
  MHD_destroy_response(response);
  return result;
}

static chs_request *request_begin(chs_server *server, struct MHD_Connection *connection,
                                  const char *url, const char *method) {
  chs_request *request = calloc(1, sizeof *request);
  if (request == NULL) return NULL;
  atomic_init(&request->refs, 1);
  atomic_fetch_add(&server->refs, 1);
  request->server = server;
  request->connection = connection;
  request->id = atomic_fetch_add(&server->next_id, 1);
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  request->fd = info != NULL ? info->connect_fd : -1;
  request->method = strdup(method);
  const char *query = strchr(url, '?');
  request->path = query != NULL ? strndup(url, (size_t)(query - url)) : strdup(url);
  if (request->method == NULL || request->path == NULL) {
    request_release(request);
    return NULL;
  }
  const char *type = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_TYPE);
  if (type != NULL && strncasecmp(type, "multipart/form-data", 19) == 0) {
    request->multipart = 1;
    request->post = MHD_create_post_processor(connection, 64 * 1024, post_field, request);
    if (request->post == NULL) {
      request->error = 400;
      request->error_code = "bad_multipart";
    }
  }
  return request;
}

struct framing {
  int lengths;
  int chunked;
  const char *first_length;
  int conflicting;
};

static enum MHD_Result count_framing(void *context, enum MHD_ValueKind kind, const char *key,
                                     const char *value) {
  (void)kind;
  struct framing *framing = context;
  if (key == NULL) return MHD_YES;
  if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
    if (framing->lengths > 0 && value != NULL && framing->first_length != NULL &&
        strcmp(value, framing->first_length) != 0) {
      framing->conflicting = 1;
    }
    if (framing->lengths == 0) framing->first_length = value;
    framing->lengths += 1;
  } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
    framing->chunked = 1;
  }
  return MHD_YES;
}

// Two different Content-Length headers, or Content-Length beside Transfer-Encoding: the body's
// end is ambiguous (RFC 9112, section 6.3), so the request is refused rather than guessed at.
static int ambiguous_framing(struct MHD_Connection *connection) {
  struct framing framing = {0, 0, NULL, 0};
  MHD_get_connection_values(connection, MHD_HEADER_KIND, count_framing, &framing);
  return framing.conflicting || (framing.lengths > 0 && framing.chunked);
}

// The declared body length is over the limit (a multipart form may add its boundaries).
static int declared_too_large(const chs_server *server, struct MHD_Connection *connection) {
  const char *length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_CONTENT_LENGTH);
  if (length == NULL) return 0;
  char *end = NULL;
  unsigned long long value = strtoull(length, &end, 10);
  return end != length && value > (unsigned long long)server->config.body_limit + 64 * 1024;
}

static void pending_remove(chs_server *server, chs_request *request) {
  if (request->previous != NULL) request->previous->next = request->next;
  else if (server->pending == request) server->pending = request->next;
  if (request->next != NULL) request->next->previous = request->previous;
  request->previous = NULL;
  request->next = NULL;
}

static enum MHD_Result hand_over(chs_server *server, chs_request *request) {
  if (request->post != NULL) {
    if (MHD_destroy_post_processor(request->post) != MHD_YES && request->error == 0) {
      request->error = 400;
      request->error_code = "truncated_multipart";
    }
    request->post = NULL;
  }
  if (request->multipart && request->error == 0 && !request->image_found) {
    request->error = 400;
    request->error_code = "missing_image_field";
  }
  pthread_mutex_lock(&server->lock);
  if (server->stopped) {
    pthread_mutex_unlock(&server->lock);
    return queue_json(request->connection, 503, "shutting_down", "the server is stopping");
  }
  atomic_fetch_add(&request->refs, 1);
  atomic_fetch_add(&server->unfinished, 1);
  request->handed = 1;
  request->next = server->pending;
  if (server->pending != NULL) server->pending->previous = request;
  server->pending = request;
  MHD_suspend_connection(request->connection);
  pthread_mutex_unlock(&server->lock);
  server->config.on_request(server->config.context, request);
  return MHD_YES;
}

static enum MHD_Result handle(void *context, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **request_slot) {
  (void)version;
  chs_server *server = context;
  chs_request *request = *request_slot;
  if (request == NULL) {
    if (ambiguous_framing(connection)) {
      return queue_json(connection, 400, "ambiguous_length",
                        "the request has conflicting Content-Length or Transfer-Encoding headers");
    }
    if (declared_too_large(server, connection)) {
      return queue_json(connection, 413, "body_too_large", "the request body is too large");
    }
    request = request_begin(server, connection, url, method);
    if (request == NULL) return MHD_NO;
    *request_slot = request;
    return MHD_YES;
  }
  if (request->handed) {
    // Resumed: the caller's response is ready.
    pthread_mutex_lock(&server->lock);
    struct MHD_Response *response = request->response;
    unsigned status = request->response_status;
    request->response = NULL;
    pthread_mutex_unlock(&server->lock);
    if (response == NULL) return MHD_NO;
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
  }
  if (*upload_data_size > 0) {
    size_t size = *upload_data_size;
    *upload_data_size = 0;
    if (request->error != 0) return request->error == 413 ? MHD_NO : MHD_YES;
    if (request->post != NULL) {
      if (MHD_post_process(request->post, upload_data, size) != MHD_YES) {
        if (request->error == 413) return MHD_NO;
        if (request->error == 0) {
          request->error = 400;
          request->error_code = "bad_multipart";
        }
      }
    } else if (!append_body(request, upload_data, size)) {
      return MHD_NO;  // a body sent without its length, past the limit: close the connection
    }
    return MHD_YES;
  }
  return hand_over(server, request);
}

static void completed(void *context, struct MHD_Connection *connection, void **request_slot,
                      enum MHD_RequestTerminationCode code) {
  (void)context;
  (void)connection;
  (void)code;
  chs_request *request = *request_slot;
  if (request == NULL) return;
  *request_slot = NULL;
  if (request->handed) atomic_fetch_sub(&request->server->unfinished, 1);
  request_release(request);
}

static int listen_address(const char *host, uint16_t port, struct sockaddr_storage *address,
                          int *ipv6) {
  memset(address, 0, sizeof *address);
  struct sockaddr_in *v4 = (struct sockaddr_in *)address;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)address;
  *ipv6 = 0;
  if (host == NULL || host[0] == '\0') {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    v4->sin_addr.s_addr = htonl(INADDR_ANY);
    return 1;
  }
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    return 1;
  }
  if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    *ipv6 = 1;
    return 1;
  }
  return 0;
}

int chs_server_start(const chs_config *config, chs_server **result, char *error,
                     size_t error_size) {
  *result = NULL;
  struct sockaddr_storage address;
  int ipv6 = 0;
  if (!listen_address(config->host, config->port, &address, &ipv6)) {
    snprintf(error, error_size, "'%s' is not an IPv4 or IPv6 address", config->host);
    return -1;
  }
  chs_server *server = calloc(1, sizeof *server);
  if (server == NULL) {
    snprintf(error, error_size, "out of memory");
    return -1;
  }
  server->config = *config;
  server->config.host = NULL;
  atomic_init(&server->refs, 1);
  atomic_init(&server->next_id, 1);
  atomic_init(&server->unfinished, 0);
  pthread_mutex_init(&server->lock, NULL);
  unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME;
  if (ipv6) flags |= MHD_USE_IPv6;
  server->daemon = MHD_start_daemon(
      flags, config->port, NULL, NULL, handle, server, MHD_OPTION_SOCK_ADDR,
      (struct sockaddr *)&address, MHD_OPTION_CONNECTION_LIMIT, config->connection_limit,
      MHD_OPTION_LISTEN_BACKLOG_SIZE, config->backlog, MHD_OPTION_CONNECTION_TIMEOUT,
      config->idle_timeout_seconds, MHD_OPTION_CONNECTION_MEMORY_LIMIT, config->header_limit,
      MHD_OPTION_NOTIFY_COMPLETED, completed, server, MHD_OPTION_END);
  if (server->daemon == NULL) {
    snprintf(error, error_size, "cannot listen on port %u (in use, or not allowed)",
             (unsigned)config->port);
    server_release(server);
    return -1;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
  server->port = info != NULL ? info->port : config->port;
  *result = server;
  return 0;
}

uint16_t chs_server_port(const chs_server *server) { return server->port; }

unsigned chs_server_unfinished(const chs_server *server) {
  return atomic_load(&((chs_server *)server)->unfinished);
}

unsigned chs_server_connections(const chs_server *server) {
  const union MHD_DaemonInfo *info =
      MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
  return info != NULL ? info->num_connections : 0;
}

void chs_server_quiesce(chs_server *server) {
  MHD_socket listener = MHD_quiesce_daemon(server->daemon);
  if (listener != MHD_INVALID_SOCKET) close(listener);
}

size_t chs_server_sweep(chs_server *server) {
  enum { batch = 64 };
  uint64_t gone[batch];
  size_t gone_count = 0, unanswered = 0;
  pthread_mutex_lock(&server->lock);
  for (chs_request *request = server->pending; request != NULL; request = request->next) {
    unanswered += 1;
    if (request->gone_reported || request->fd < 0 || gone_count == batch) continue;
    struct pollfd probe = {.fd = request->fd, .events = POLLRDHUP};
    if (poll(&probe, 1, 0) > 0 && (probe.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
      request->gone_reported = 1;
      gone[gone_count++] = request->id;
    }
  }
  pthread_mutex_unlock(&server->lock);
  for (size_t index = 0; index < gone_count; index += 1) {
    server->config.on_gone(server->config.context, gone[index]);
  }
  return unanswered;
}

// Sets a request's response and resumes its connection; the lock is held.
static void answer_locked(chs_server *server, chs_request *request, struct MHD_Response *response,
                          unsigned status) {
  request->answered = 1;
  request->response = response;
  request->response_status = status;
  pending_remove(server, request);
  MHD_resume_connection(request->connection);
}

void chs_respond(chs_request *request, unsigned status, const char *content_type,
                 const char *headers, const uint8_t *body, size_t size) {
  chs_server *server = request->server;
  struct MHD_Response *response =
      MHD_create_response_from_buffer(size, (void *)body, MHD_RESPMEM_MUST_COPY);
  if (response != NULL) {
    if (content_type != NULL) {
      MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    }
    for (const char *line = headers; line != NULL && *line != '\0';) {
      const char *end = strchr(line, '\n');
      size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
      const char *colon = memchr(line, ':', length);
      if (colon != NULL && length < 1024) {
        char name[1024], value[1024];
        size_t name_length = (size_t)(colon - line);
        const char *start = colon + 1;
        while (start < line + length && *start == ' ') start += 1;
        memcpy(name, line, name_length);
        name[name_length] = '\0';
        memcpy(value, start, (size_t)(line + length - start));
        value[line + length - start] = '\0';
        MHD_add_response_header(response, name, value);
      }
      line = end != NULL ? end + 1 : NULL;
    }
  }
  pthread_mutex_lock(&server->lock);
  if (!request->answered && response != NULL) {
    answer_locked(server, request, response, status);
    response = NULL;
  } else if (!request->answered) {
    // Out of memory for the response: close the connection instead.
    request->answered = 1;
    pending_remove(server, request);
    MHD_resume_connection(request->connection);
  }
  pthread_mutex_unlock(&server->lock);
  if (response != NULL) MHD_destroy_response(response);
  request_release(request);
}

void chs_server_stop(chs_server *server) {
  static const char body[] =
      "{\"error\":{\"code\":\"shutting_down\",\"message\":\"the server is stopping\"}}\n";
  pthread_mutex_lock(&server->lock);
  server->stopped = 1;
  while (server->pending != NULL) {
    chs_request *request = server->pending;
    struct MHD_Response *response =
        MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    if (response != NULL) MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, json_type);
    answer_locked(server, request, response, 503);
  }
  pthread_mutex_unlock(&server->lock);
  MHD_stop_daemon(server->daemon);
  server->daemon = NULL;
  server_release(server);
}

uint64_t chs_request_id(const chs_request *request) { return request->id; }
const char *chs_request_method(const chs_request *request) { return request->method; }
const char *chs_request_path(const chs_request *request) { return request->path; }

const char *chs_request_header(const chs_request *request, const char *name) {
  return MHD_lookup_connection_value(request->connection, MHD_HEADER_KIND, name);
}

uint8_t *chs_request_take_body(chs_request *request, size_t *size, int *multipart) {
  uint8_t *body = request->body;
  *size = request->size;
  *multipart = request->multipart;
  request->body = NULL;
  request->size = 0;
  request->capacity = 0;
  return body;
}

void chs_free_body(void *body) { free(body); }

unsigned chs_request_error(const chs_request *request, const char **code) {
  *code = request->error_code;
  return request->error;
}

void chs_ignore_termination_signals(void) {
  signal(SIGTERM, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
}

int chs_sigterm(void) { return SIGTERM; }
int chs_sigint(void) { return SIGINT; }
