//--blockDim=64 --gridDim=4
// MD5 digests of fixed-length messages, one message per thread. A message is
// BLOCKS 64-byte blocks. The block of threads stages its messages in shared
// memory with coalesced loads (word w of thread t's message goes to
// words[w][t]), waits once, and then every thread runs the compression
// function over its own blocks. The 64 steps of a block are written out
// through macros: the kernel body is straight-line code of about 1,600
// statements.
#define THREADS 64
#define BLOCKS 8
#define WORDS (16 * BLOCKS)

#define ROTL(x, s) (((x) << (s)) | ((x) >> (32 - (s))))
#define F1(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define F2(x, y, z) (((x) & (z)) | ((y) & ~(z)))
#define F3(x, y, z) ((x) ^ (y) ^ (z))
#define F4(x, y, z) ((y) ^ ((x) | ~(z)))
// One step: mix word k of the current block into a, rotate, add b.
#define STEP(f, a, b, c, d, k, s, t) \
    a += f(b, c, d) + words[base + (k)][tid] + (t); \
    a = ROTL(a, s); \
    a += b;

// The 64 steps of one block whose first word is `base`.
#define COMPRESS_BLOCK() \
    aa = a; bb = b; cc = c; dd = d; \
    STEP(F1, a, b, c, d, 0, 7, 0xd76aa478u) \
    STEP(F1, d, a, b, c, 1, 12, 0xe8c7b756u) \
    STEP(F1, c, d, a, b, 2, 17, 0x242070dbu) \
    STEP(F1, b, c, d, a, 3, 22, 0xc1bdceeeu) \
    STEP(F1, a, b, c, d, 4, 7, 0xf57c0fafu) \
    STEP(F1, d, a, b, c, 5, 12, 0x4787c62au) \
    STEP(F1, c, d, a, b, 6, 17, 0xa8304613u) \
    STEP(F1, b, c, d, a, 7, 22, 0xfd469501u) \
    STEP(F1, a, b, c, d, 8, 7, 0x698098d8u) \
    STEP(F1, d, a, b, c, 9, 12, 0x8b44f7afu) \
    STEP(F1, c, d, a, b, 10, 17, 0xffff5bb1u) \
    STEP(F1, b, c, d, a, 11, 22, 0x895cd7beu) \
    STEP(F1, a, b, c, d, 12, 7, 0x6b901122u) \
    STEP(F1, d, a, b, c, 13, 12, 0xfd987193u) \
    STEP(F1, c, d, a, b, 14, 17, 0xa679438eu) \
    STEP(F1, b, c, d, a, 15, 22, 0x49b40821u) \
    STEP(F2, a, b, c, d, 1, 5, 0xf61e2562u) \
    STEP(F2, d, a, b, c, 6, 9, 0xc040b340u) \
    STEP(F2, c, d, a, b, 11, 14, 0x265e5a51u) \
    STEP(F2, b, c, d, a, 0, 20, 0xe9b6c7aau) \
    STEP(F2, a, b, c, d, 5, 5, 0xd62f105du) \
    STEP(F2, d, a, b, c, 10, 9, 0x02441453u) \
    STEP(F2, c, d, a, b, 15, 14, 0xd8a1e681u) \
    STEP(F2, b, c, d, a, 4, 20, 0xe7d3fbc8u) \
    STEP(F2, a, b, c, d, 9, 5, 0x21e1cde6u) \
    STEP(F2, d, a, b, c, 14, 9, 0xc33707d6u) \
    STEP(F2, c, d, a, b, 3, 14, 0xf4d50d87u) \
    STEP(F2, b, c, d, a, 8, 20, 0x455a14edu) \
    STEP(F2, a, b, c, d, 13, 5, 0xa9e3e905u) \
    STEP(F2, d, a, b, c, 2, 9, 0xfcefa3f8u) \
    STEP(F2, c, d, a, b, 7, 14, 0x676f02d9u) \
    STEP(F2, b, c, d, a, 12, 20, 0x8d2a4c8au) \
    STEP(F3, a, b, c, d, 5, 4, 0xfffa3942u) \
    STEP(F3, d, a, b, c, 8, 11, 0x8771f681u) \
    STEP(F3, c, d, a, b, 11, 16, 0x6d9d6122u) \
    STEP(F3, b, c, d, a, 14, 23, 0xfde5380cu) \
    STEP(F3, a, b, c, d, 1, 4, 0xa4beea44u) \
    STEP(F3, d, a, b, c, 4, 11, 0x4bdecfa9u) \
    STEP(F3, c, d, a, b, 7, 16, 0xf6bb4b60u) \
    STEP(F3, b, c, d, a, 10, 23, 0xbebfbc70u) \
    STEP(F3, a, b, c, d, 13, 4, 0x289b7ec6u) \
    STEP(F3, d, a, b, c, 0, 11, 0xeaa127fau) \
    STEP(F3, c, d, a, b, 3, 16, 0xd4ef3085u) \
    STEP(F3, b, c, d, a, 6, 23, 0x04881d05u) \
    STEP(F3, a, b, c, d, 9, 4, 0xd9d4d039u) \
    STEP(F3, d, a, b, c, 12, 11, 0xe6db99e5u) \
    STEP(F3, c, d, a, b, 15, 16, 0x1fa27cf8u) \
    STEP(F3, b, c, d, a, 2, 23, 0xc4ac5665u) \
    STEP(F4, a, b, c, d, 0, 6, 0xf4292244u) \
    STEP(F4, d, a, b, c, 7, 10, 0x432aff97u) \
    STEP(F4, c, d, a, b, 14, 15, 0xab9423a7u) \
    STEP(F4, b, c, d, a, 5, 21, 0xfc93a039u) \
    STEP(F4, a, b, c, d, 12, 6, 0x655b59c3u) \
    STEP(F4, d, a, b, c, 3, 10, 0x8f0ccc92u) \
    STEP(F4, c, d, a, b, 10, 15, 0xffeff47du) \
    STEP(F4, b, c, d, a, 1, 21, 0x85845dd1u) \
    STEP(F4, a, b, c, d, 8, 6, 0x6fa87e4fu) \
    STEP(F4, d, a, b, c, 15, 10, 0xfe2ce6e0u) \
    STEP(F4, c, d, a, b, 6, 15, 0xa3014314u) \
    STEP(F4, b, c, d, a, 13, 21, 0x4e0811a1u) \
    STEP(F4, a, b, c, d, 4, 6, 0xf7537e82u) \
    STEP(F4, d, a, b, c, 11, 10, 0xbd3af235u) \
    STEP(F4, c, d, a, b, 2, 15, 0x2ad7d2bbu) \
    STEP(F4, b, c, d, a, 9, 21, 0xeb86d391u) \
    a += aa; b += bb; c += cc; d += dd;

__global__ void md5_batch(const unsigned int *messages, unsigned int *digests)
{
    __shared__ unsigned int words[WORDS][THREADS];
    int tid = threadIdx.x;
    const unsigned int *src = messages + blockIdx.x * (WORDS * THREADS);

    // Thread t's message is words [t * WORDS, (t + 1) * WORDS) of the block's
    // slice; consecutive threads load consecutive words of the slice.
    for (int i = tid; i < WORDS * THREADS; i += THREADS) {
        int owner = i / WORDS;
        int w = i % WORDS;
        words[w][owner] = src[i];
    }
    __syncthreads();

    unsigned int a = 0x67452301u;
    unsigned int b = 0xefcdab89u;
    unsigned int c = 0x98badcfeu;
    unsigned int d = 0x10325476u;
    unsigned int aa, bb, cc, dd;
    int base;
    base = 0;
    COMPRESS_BLOCK()
    base = 16;
    COMPRESS_BLOCK()
    base = 32;
    COMPRESS_BLOCK()
    base = 48;
    COMPRESS_BLOCK()
    base = 64;
    COMPRESS_BLOCK()
    base = 80;
    COMPRESS_BLOCK()
    base = 96;
    COMPRESS_BLOCK()
    base = 112;
    COMPRESS_BLOCK()

    unsigned int *out = digests + (blockIdx.x * THREADS + tid) * 4;
    out[0] = a;
    out[1] = b;
    out[2] = c;
    out[3] = d;
}
