#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H
/* Placeholder replaced by the decoding work. */
int cic_version(void);
#endif
