package io.allsum;

/**
 * A CUDA stream the caller made ({@code cudaStream_t}, e.g. from JavaCPP's {@code CUstream_st.address()} or a
 * framework's current stream), for the {@link Communicator} calls that enqueue on it; allsum never destroys it.
 * {@link #LEGACY_DEFAULT} is the handle 0.
 */
public record CudaStream(long handle) {

    public static final CudaStream LEGACY_DEFAULT = new CudaStream(0);
}
