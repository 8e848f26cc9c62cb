/* Replacing a file atomically: rename(2) over the old one, then fsync of the directory, so a
   crash leaves either the old file or the new one, whole. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "CNativeFiles.h"

int cnf_replace(const char *temporary, const char *target) {
  if (rename(temporary, target) != 0) return errno;
  char directory[PATH_MAX];
  size_t length = strlen(target);
  if (length >= sizeof directory) return 0;
  memcpy(directory, target, length + 1);
  int descriptor = open(dirname(directory), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (descriptor < 0) return 0; /* renamed; only the directory's durability is unconfirmed */
  fsync(descriptor);
  close(descriptor);
  return 0;
}
