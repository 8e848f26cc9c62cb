#include "CNativeKernels.h"

#include <pthread.h>
#include <stdlib.h>

/*
 * One growing buffer per thread, so kernels that need a few hundred kilobytes of workspace do
 * not map, fault in and zero fresh pages on every call. The buffer is freed when its thread
 * exits.
 */
typedef struct scratch {
  void *bytes;
  size_t capacity;
} scratch;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static int scratch_key_ready;

static void release_scratch(void *value) {
  scratch *buffer = value;
  free(buffer->bytes);
  free(buffer);
}

static void make_scratch_key(void) {
  scratch_key_ready = pthread_key_create(&scratch_key, release_scratch) == 0;
}

void *cnk_thread_scratch(size_t bytes) {
  if (bytes > ((size_t)1 << 30)) return NULL;
  pthread_once(&scratch_once, make_scratch_key);
  if (!scratch_key_ready) return NULL;
  scratch *buffer = pthread_getspecific(scratch_key);
  if (!buffer) {
    buffer = calloc(1, sizeof(scratch));
    if (!buffer) return NULL;
    if (pthread_setspecific(scratch_key, buffer) != 0) {
      free(buffer);
      return NULL;
    }
  }
  if (buffer->capacity < bytes) {
    void *grown = NULL;
    size_t capacity = bytes < 65536 ? 65536 : bytes;
    if (posix_memalign(&grown, 64, capacity) != 0) return NULL;
    free(buffer->bytes);
    buffer->bytes = grown;
    buffer->capacity = capacity;
  }
  return buffer->bytes;
}
