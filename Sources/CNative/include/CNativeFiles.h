#ifndef CNATIVE_FILES_H
#define CNATIVE_FILES_H

/*
 * File-system calls the Swift side needs and Foundation does not offer atomically.
 */

/* Renames `temporary` over `target` (same file system) and syncs the directory: a crash leaves
   the old target or the new one. Returns 0, or the errno of the failed rename. */
int cnf_replace(const char *temporary, const char *target);

#endif
