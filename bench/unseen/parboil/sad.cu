// Parboil sad (sum of absolute differences for H.264 motion estimation; mb_sad_calc's
// shape): 16-bit luma frames, 4x4 sub-blocks of each 16x16 macroblock compared with the
// reference frame at every offset of a search window. One thread per (sub-block, search
// offset): the offset's x on threadIdx.x, so a warp reads the reference row at 32
// consecutive x (2-byte pixels, coalesced) and the current sub-block's pixels by
// broadcast; the SADs are stored sub-block-major. Parboil reads the reference through a
// texture; global loads here. Written for bench/unseen.
#define SEARCH 32 /* offsets -16..15 in x and y */

__global__ void sad_calc(unsigned short *sads, const unsigned short *cur,
                         const unsigned short *ref, int width, int height)
{
  int dx = threadIdx.x;        /* offset + 16 */
  int dy = blockIdx.y;         /* offset + 16 */
  int sb = blockIdx.x;         /* sub-block in raster order, 4x4 pixels */
  int sbx = (sb % (width / 4)) * 4, sby = (sb / (width / 4)) * 4;
  int rx = sbx + dx - SEARCH / 2, ry = sby + dy - SEARCH / 2;
  unsigned int sad = 0;
  if (rx >= 0 && ry >= 0 && rx + 4 <= width && ry + 4 <= height) {
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 4; x++) {
        int d = (int)cur[(sby + y) * width + sbx + x] - (int)ref[(ry + y) * width + rx + x];
        sad += d < 0 ? -d : d;
      }
  }
  sads[(sb * SEARCH + dy) * SEARCH + dx] = (unsigned short)(sad > 65535u ? 65535u : sad);
}
