#ifndef CLIBJPEG_SHIM_H
#define CLIBJPEG_SHIM_H
#include <stdio.h>
#include <stddef.h>
#include <jpeglib.h>
#include <jerror.h>
#endif
