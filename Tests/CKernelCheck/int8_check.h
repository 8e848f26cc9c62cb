#ifndef INT8_CHECK_H
#define INT8_CHECK_H

/* Checks every set's int8 entry and the int8 variants named in argv (every variant this
   machine runs when argc is 1); returns the failures and stores the cases run. */
int check_int8(int argc, char **argv, int *case_count);

#endif
