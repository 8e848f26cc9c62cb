// PostgreSQL's client library (libpq) behind a small interface: one connection, statements with
// text parameters, and a deadline on every wait, so a server that stops answering gives an error
// in bounded time instead of a hung caller.
#ifndef CPOSTGRES_H
#define CPOSTGRES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cpg_connection cpg_connection;
typedef struct cpg_result cpg_result;

// What a call ended with.
typedef enum {
  // The statement ran; its rows (if any) are in the result.
  CPG_OK = 0,
  // The server refused the statement (bad SQL, a constraint, a missing extension); the
  // connection can still be used.
  CPG_REFUSED = 1,
  // The connection failed or was lost (the server stopped or went away); it cannot be used again.
  CPG_CONNECTION_LOST = 2,
  // The deadline passed; the statement was cancelled and the connection cannot be used again.
  CPG_TIMEOUT = 3,
} cpg_status;

// Connects to `conninfo` (a postgresql:// URI or key=value string), waiting at most
// `timeout_seconds`. Returns CPG_OK with *connection set, or another status with *message set
// (free it with cpg_free_message).
cpg_status cpg_connect(const char *conninfo, int timeout_seconds, cpg_connection **connection,
                       char **message);

// Closes a connection (NULL is ignored).
void cpg_close(cpg_connection *connection);

// Runs one statement with `count` text parameters ($1 .. $count; a NULL value is SQL NULL),
// waiting at most `timeout_milliseconds` for the whole answer. Returns CPG_OK with *result set
// (free it with cpg_clear), or another status with *message set (free it with cpg_free_message).
// `sqlstate` (6 bytes) receives the server's SQLSTATE code for CPG_REFUSED, "" otherwise.
cpg_status cpg_run(cpg_connection *connection, const char *sql, int count,
                   const char *const *values, int timeout_milliseconds, cpg_result **result,
                   char **message, char sqlstate[6]);

// The result's rows and columns.
int cpg_rows(const cpg_result *result);
int cpg_columns(const cpg_result *result);
// A field as text (NUL-terminated), or NULL for SQL NULL; valid until cpg_clear.
const char *cpg_value(const cpg_result *result, int row, int column);
// A field's length in bytes (0 for SQL NULL).
int cpg_length(const cpg_result *result, int row, int column);
// Frees a result (NULL is ignored).
void cpg_clear(cpg_result *result);

// Frees a message from cpg_connect or cpg_run (NULL is ignored).
void cpg_free_message(char *message);

#ifdef __cplusplus
}
#endif

#endif
