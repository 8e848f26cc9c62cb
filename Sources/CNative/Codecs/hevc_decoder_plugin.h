#ifndef CNATIVE_HEVC_DECODER_PLUGIN_H
#define CNATIVE_HEVC_DECODER_PLUGIN_H

/* A libheif decoder plugin for HEVC over libde265, registered ahead of libheif's own so that
   a decode may use libde265's worker threads (libheif 1.15's plugin always uses one), which
   decode the rows of a wavefront-parallel stream (as x265 and iPhones write them) side by side. */

/* Registers the plugin with libheif, once per process; safe to call from any thread. */
void cic_hevc_register_decoder(void);

/* The libde265 worker threads the decoders made on the calling thread start (0: the stream is
   decoded on the thread that asks for the picture). Decoders that libheif makes on its own
   tile threads see 0, so a grid's tiles, already decoded side by side, start none. */
void cic_hevc_set_worker_threads(int threads);

#endif
