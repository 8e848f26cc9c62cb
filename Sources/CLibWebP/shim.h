#ifndef CLIBWEBP_SHIM_H
#define CLIBWEBP_SHIM_H
#include <webp/decode.h>
#include <webp/demux.h>
#endif
