// libpq in non-blocking mode with poll(): every wait on the server has a deadline.
#include "CPostgres.h"

#include <errno.h>
#include <poll.h>
#include <postgresql/libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cpg_connection {
  PGconn *connection;
};

static char *copy_message(const char *text) {
  const char *source = text != NULL && text[0] != '\0' ? text : "no message from PostgreSQL";
  size_t length = strlen(source);
  while (length > 0 && (source[length - 1] == '\n' || source[length - 1] == ' ')) length--;
  char *copy = malloc(length + 1);
  if (copy == NULL) return NULL;
  // One line: libpq's hints follow a newline and a tab.
  size_t written = 0;
  for (size_t index = 0; index < length; index++) {
    char byte = source[index];
    if (byte == '\n' || byte == '\t' || byte == '\r') {
      if (written > 0 && copy[written - 1] != ' ') copy[written++] = ' ';
    } else {
      copy[written++] = byte;
    }
  }
  copy[written] = '\0';
  return copy;
}

static long long now_milliseconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

cpg_status cpg_connect(const char *conninfo, int timeout_seconds, cpg_connection **connection,
                       char **message) {
  *connection = NULL;
  *message = NULL;
  char timeout[16];
  snprintf(timeout, sizeof timeout, "%d", timeout_seconds > 0 ? timeout_seconds : 10);
  const char *const keywords[] = {"dbname", "connect_timeout", "client_encoding",
                                  "application_name", NULL};
  const char *const values[] = {conninfo, timeout, "UTF8", "vision-catalog", NULL};
  PGconn *opened = PQconnectdbParams(keywords, values, 1);
  if (opened == NULL) {
    *message = copy_message("out of memory");
    return CPG_CONNECTION_LOST;
  }
  if (PQstatus(opened) != CONNECTION_OK || PQsetnonblocking(opened, 1) != 0) {
    *message = copy_message(PQerrorMessage(opened));
    PQfinish(opened);
    return CPG_CONNECTION_LOST;
  }
  cpg_connection *made = malloc(sizeof *made);
  if (made == NULL) {
    PQfinish(opened);
    *message = copy_message("out of memory");
    return CPG_CONNECTION_LOST;
  }
  made->connection = opened;
  *connection = made;
  return CPG_OK;
}

void cpg_close(cpg_connection *connection) {
  if (connection == NULL) return;
  PQfinish(connection->connection);
  free(connection);
}

// Waits until the socket is ready for `events` or the deadline passes: 1 ready, 0 timed out,
// -1 failed.
static int wait_socket(PGconn *connection, short events, long long deadline) {
  int socket = PQsocket(connection);
  if (socket < 0) return -1;
  for (;;) {
    long long left = deadline - now_milliseconds();
    if (left <= 0) return 0;
    struct pollfd descriptor = {.fd = socket, .events = events, .revents = 0};
    int ready = poll(&descriptor, 1, left > 60000 ? 60000 : (int)left);
    if (ready > 0) return 1;
    if (ready < 0 && errno != EINTR) return -1;
  }
}

static cpg_status lost(PGconn *connection, char **message) {
  *message = copy_message(PQerrorMessage(connection));
  return CPG_CONNECTION_LOST;
}

static cpg_status timed_out(char **message, int timeout_milliseconds) {
  char text[96];
  snprintf(text, sizeof text, "PostgreSQL did not answer within %d ms", timeout_milliseconds);
  *message = copy_message(text);
  return CPG_TIMEOUT;
}

// Sends the buffered statement to the server.
static cpg_status flush(PGconn *connection, long long deadline, int timeout, char **message) {
  for (;;) {
    int pending = PQflush(connection);
    if (pending == 0) return CPG_OK;
    if (pending < 0) return lost(connection, message);
    int ready = wait_socket(connection, POLLOUT | POLLIN, deadline);
    if (ready == 0) return timed_out(message, timeout);
    if (ready < 0 || PQconsumeInput(connection) == 0) return lost(connection, message);
  }
}

// Collects every result of the statement; keeps the first error or else the last result.
static cpg_status collect(PGconn *connection, long long deadline, int timeout, PGresult **kept,
                          char **message) {
  for (;;) {
    while (!PQisBusy(connection)) {
      PGresult *next = PQgetResult(connection);
      if (next == NULL) return CPG_OK;
      ExecStatusType status = PQresultStatus(next);
      int failed = status == PGRES_BAD_RESPONSE || status == PGRES_FATAL_ERROR ||
                   status == PGRES_NONFATAL_ERROR;
      if (*kept != NULL && PQresultStatus(*kept) == PGRES_FATAL_ERROR) {
        PQclear(next);
      } else if (failed || *kept == NULL || status != PGRES_COMMAND_OK) {
        PQclear(*kept);
        *kept = next;
      } else {
        PQclear(next);
      }
    }
    int ready = wait_socket(connection, POLLIN, deadline);
    if (ready == 0) return timed_out(message, timeout);
    if (ready < 0 || PQconsumeInput(connection) == 0) return lost(connection, message);
  }
}

cpg_status cpg_run(cpg_connection *connection, const char *sql, int count,
                   const char *const *values, int timeout_milliseconds, cpg_result **result,
                   char **message, char sqlstate[6]) {
  *result = NULL;
  *message = NULL;
  sqlstate[0] = '\0';
  PGconn *pg = connection->connection;
  if (PQstatus(pg) != CONNECTION_OK) return lost(pg, message);
  long long deadline = now_milliseconds() + (timeout_milliseconds > 0 ? timeout_milliseconds : 1);
  if (PQsendQueryParams(pg, sql, count, NULL, values, NULL, NULL, 0) == 0) {
    return lost(pg, message);
  }
  cpg_status sent = flush(pg, deadline, timeout_milliseconds, message);
  if (sent != CPG_OK) return sent;
  PGresult *kept = NULL;
  cpg_status collected = collect(pg, deadline, timeout_milliseconds, &kept, message);
  if (collected != CPG_OK) {
    PQclear(kept);
    return collected;
  }
  if (kept == NULL) return lost(pg, message);
  ExecStatusType status = PQresultStatus(kept);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    *result = (cpg_result *)kept;
    return CPG_OK;
  }
  const char *code = PQresultErrorField(kept, PG_DIAG_SQLSTATE);
  if (code != NULL) {
    strncpy(sqlstate, code, 5);
    sqlstate[5] = '\0';
  }
  *message = copy_message(PQresultErrorMessage(kept));
  PQclear(kept);
  return PQstatus(pg) == CONNECTION_OK ? CPG_REFUSED : CPG_CONNECTION_LOST;
}

int cpg_rows(const cpg_result *result) { return PQntuples((const PGresult *)result); }

int cpg_columns(const cpg_result *result) { return PQnfields((const PGresult *)result); }

const char *cpg_value(const cpg_result *result, int row, int column) {
  const PGresult *pg = (const PGresult *)result;
  if (PQgetisnull(pg, row, column)) return NULL;
  return PQgetvalue(pg, row, column);
}

int cpg_length(const cpg_result *result, int row, int column) {
  return PQgetlength((const PGresult *)result, row, column);
}

void cpg_clear(cpg_result *result) { PQclear((PGresult *)result); }

void cpg_free_message(char *message) { free(message); }
