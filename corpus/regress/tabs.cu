//--blockDim=64 --gridDim=1
// Indented with tabs only; the inserted barrier must copy the tab indentation.
__global__ void tabs(const float *in, float *out, int n)
{
	__shared__ float s[64];
	int t = threadIdx.x;
	for (int i = 0; i < n; i++) {
		s[t] = in[i * 64 + t];
		out[i * 64 + t] = s[(t + 1) % 64];
	}
}
