#include "CNativeKernels.h"

#include <string.h>

void cnk_to_blocked(const float *input, int64_t channels, int64_t positions, int64_t lanes,
                    int64_t first_block, int64_t block_count, float *output) {
  for (int64_t block = first_block; block < first_block + block_count; block++) {
    float *target = output + block * positions * lanes;
    int64_t valid = channels - block * lanes < lanes ? channels - block * lanes : lanes;
    const float *source = input + block * lanes * positions;
    for (int64_t p = 0; p < positions; p++) {
      for (int64_t lane = 0; lane < lanes; lane++) {
        target[p * lanes + lane] = lane < valid ? source[lane * positions + p] : 0.0f;
      }
    }
  }
}

void cnk_from_blocked(const float *input, int64_t channels, int64_t positions, int64_t lanes,
                      int64_t first_block, int64_t block_count, float *output) {
  for (int64_t block = first_block; block < first_block + block_count; block++) {
    const float *source = input + block * positions * lanes;
    int64_t valid = channels - block * lanes < lanes ? channels - block * lanes : lanes;
    for (int64_t lane = 0; lane < valid; lane++) {
      float *target = output + (block * lanes + lane) * positions;
      for (int64_t p = 0; p < positions; p++) target[p] = source[p * lanes + lane];
    }
  }
}

void cnk_blocked_to_channels_last(const float *input, int64_t channels, int64_t positions,
                                  int64_t lanes, int64_t first_position, int64_t count,
                                  float *output) {
  int64_t blocks = (channels + lanes - 1) / lanes;
  for (int64_t p = first_position; p < first_position + count; p++) {
    float *target = output + p * channels;
    for (int64_t block = 0; block < blocks; block++) {
      int64_t valid = channels - block * lanes < lanes ? channels - block * lanes : lanes;
      memcpy(target + block * lanes, input + (block * positions + p) * lanes,
             (size_t)valid * sizeof(float));
    }
  }
}

void cnk_channels_last_to_blocked(const float *input, int64_t channels, int64_t positions,
                                  int64_t lanes, int64_t first_block, int64_t block_count,
                                  float *output) {
  for (int64_t block = first_block; block < first_block + block_count; block++) {
    int64_t valid = channels - block * lanes < lanes ? channels - block * lanes : lanes;
    float *target = output + block * positions * lanes;
    for (int64_t p = 0; p < positions; p++) {
      memcpy(target + p * lanes, input + p * channels + block * lanes,
             (size_t)valid * sizeof(float));
      memset(target + p * lanes + valid, 0, (size_t)(lanes - valid) * sizeof(float));
    }
  }
}
