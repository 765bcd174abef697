package io.allsum.comm.nccl;

import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaMemcpy;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;

/**
 * Device memory from cudaMalloc, or the caller's own (wrapped, {@code owned} false: never freed here). JavaCPP's GC
 * accounting cannot see it, so owned memory is freed explicitly by {@link #close()}. The device {@link Pointer} is made once and reused by every collective (no Pointer allocation on
 * the hot path).
 */
final class NcclBuffer implements CommBuffer {

    private final Pointer device;
    private final long byteSize;
    private final int deviceIndex;
    private final GpuThread gpu;
    private final Duration timeout;
    private final int rank;
    private final Consumer<NcclBuffer> onClose;
    private final boolean owned;
    private final AtomicBoolean closed = new AtomicBoolean();

    NcclBuffer(Pointer device, long byteSize, int deviceIndex, GpuThread gpu, Duration timeout, int rank,
               Consumer<NcclBuffer> onClose) {
        this(device, byteSize, deviceIndex, gpu, timeout, rank, onClose, true);
    }

    NcclBuffer(Pointer device, long byteSize, int deviceIndex, GpuThread gpu, Duration timeout, int rank,
               Consumer<NcclBuffer> onClose, boolean owned) {
        this.owned = owned;
        this.onClose = onClose;
        this.device = device;
        this.byteSize = byteSize;
        this.deviceIndex = deviceIndex;
        this.gpu = gpu;
        this.timeout = timeout;
        this.rank = rank;
    }

    /** The device address for NCCL calls; fails if the buffer was closed. */
    Pointer pointer(String phase) {
        if (closed.get()) {
            throw new CommException(phase, rank, "buffer of " + byteSize + " bytes was already closed");
        }
        return device;
    }

    int deviceIndex() {
        return deviceIndex;
    }

    @Override
    public long byteSize() {
        return byteSize;
    }

    @Override
    public void copyFromHost(ByteBuffer src, long offsetBytes) {
        int length = src.remaining();
        checkRange("copy_from_host", offsetBytes, length);
        if (length == 0) {
            return;
        }
        ByteBuffer direct = src.isDirect() ? src : ByteBuffer.allocateDirect(length).put(src.duplicate()).flip();
        gpu.run("copy_from_host", rank, timeout, () -> {
            BytePointer host = new BytePointer(direct);
            BytePointer target = new BytePointer(pointer("copy_from_host")).position(offsetBytes);
            Nccl.checkCuda(cudaMemcpy(target, host, length, cudaMemcpyHostToDevice), "copy_from_host", rank,
                    "cudaMemcpy host to device of " + length + " bytes");
        });
    }

    @Override
    public void copyToHost(ByteBuffer dst, long offsetBytes) {
        int length = dst.remaining();
        checkRange("copy_to_host", offsetBytes, length);
        if (length == 0) {
            return;
        }
        ByteBuffer direct = dst.isDirect() ? dst : ByteBuffer.allocateDirect(length);
        gpu.run("copy_to_host", rank, timeout, () -> {
            BytePointer host = new BytePointer(direct);
            BytePointer source = new BytePointer(pointer("copy_to_host")).position(offsetBytes);
            Nccl.checkCuda(cudaMemcpy(host, source, length, cudaMemcpyDeviceToHost), "copy_to_host", rank,
                    "cudaMemcpy device to host of " + length + " bytes");
        });
        if (direct != dst) {
            dst.put(dst.position(), direct, 0, length);
        }
    }

    private void checkRange(String phase, long offsetBytes, int length) {
        if (offsetBytes < 0 || offsetBytes + length > byteSize) {
            throw new CommException(phase, rank, "range [" + offsetBytes + ", " + (offsetBytes + length)
                    + ") is outside the buffer of " + byteSize + " bytes");
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            onClose.accept(this);
            if (!owned) {
                return;
            }
            gpu.run("free", rank, timeout, () -> {
                if (!device.isNull()) {
                    Nccl.checkCuda(cudaFree(device), "free", rank, "cudaFree of " + byteSize + " bytes");
                }
            });
        }
    }
}
