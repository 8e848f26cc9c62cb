#include "CNativeKernels.h"

/* The k best scores of a similarity scan: a bounded min-heap held in the output arrays (the
   worst kept score at the root), sorted best first at the end. One source for every set: the
   scan is a compare per score, memory-bound like the scoring before it. */

/* Whether (value a, index ia) ranks below (value b, index ib): a smaller score, or the same
   score at a larger index. */
static inline int worse(float a, int64_t ia, float b, int64_t ib) {
  return a < b || (a == b && ia > ib);
}

static void swap_entries(int64_t *indices, float *values, int64_t a, int64_t b) {
  int64_t index = indices[a];
  indices[a] = indices[b];
  indices[b] = index;
  float value = values[a];
  values[a] = values[b];
  values[b] = value;
}

/* Restores the heap below `node` in the first `size` entries (the worst at the root). */
static void sift_down(int64_t *indices, float *values, int64_t size, int64_t node) {
  for (;;) {
    int64_t left = 2 * node + 1, right = left + 1, smallest = node;
    if (left < size && worse(values[left], indices[left], values[smallest], indices[smallest]))
      smallest = left;
    if (right < size && worse(values[right], indices[right], values[smallest], indices[smallest]))
      smallest = right;
    if (smallest == node) return;
    swap_entries(indices, values, node, smallest);
    node = smallest;
  }
}

static void sift_up(int64_t *indices, float *values, int64_t node) {
  while (node > 0) {
    int64_t parent = (node - 1) / 2;
    if (!worse(values[node], indices[node], values[parent], indices[parent])) return;
    swap_entries(indices, values, node, parent);
    node = parent;
  }
}

int64_t cnk_top_k(const float *scores, int64_t count, const uint8_t *allowed, int64_t k,
                  int64_t *indices, float *values) {
  if (k <= 0 || count <= 0) return 0;
  int64_t size = 0;
  for (int64_t i = 0; i < count; i++) {
    float score = scores[i];
    if (score != score || (allowed && !allowed[i])) continue;
    if (size < k) {
      indices[size] = i;
      values[size] = score;
      sift_up(indices, values, size);
      size++;
    } else if (worse(values[0], indices[0], score, i)) {
      indices[0] = i;
      values[0] = score;
      sift_down(indices, values, size, 0);
    }
  }
  /* Heap sort: move the worst to the end repeatedly, which leaves the best first. */
  for (int64_t end = size - 1; end > 0; end--) {
    swap_entries(indices, values, 0, end);
    sift_down(indices, values, end, 0);
  }
  return size;
}
