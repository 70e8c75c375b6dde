// getrusage(2) for the Java probe through the Foreign Function & Memory API (final in Java 22).
// Compiled only when the JDK is 22 or later; Probe loads it by name and falls back to
// /proc/self/stat (no context switches) when it is absent. Linux LP64 layout of struct rusage:
// two timevals (16 bytes each), then 14 longs; ru_minflt at 64, ru_majflt 72, ru_nvcsw 128,
// ru_nivcsw 136.

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.function.Supplier;

public final class NativeUsage implements Supplier<double[]> {
    private static final int RUSAGE_SELF = 0, RUSAGE_CHILDREN = -1, SIZE = 144;
    private final MethodHandle getrusage;

    public NativeUsage() {
        Linker linker = Linker.nativeLinker();
        MemorySegment symbol = linker.defaultLookup().find("getrusage").orElseThrow();
        getrusage = linker.downcallHandle(symbol,
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    }

    @Override
    public double[] get() {
        double[] self = read(RUSAGE_SELF), children = read(RUSAGE_CHILDREN);
        for (int i = 0; i < self.length; i++) self[i] += children[i];
        return self;
    }

    private double[] read(int who) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ru = arena.allocate(SIZE, 8);
            int rc = (int) getrusage.invokeExact(who, ru);
            if (rc != 0) throw new IllegalStateException("getrusage failed");
            return new double[] {
                ru.get(ValueLayout.JAVA_LONG, 128), ru.get(ValueLayout.JAVA_LONG, 136),
                ru.get(ValueLayout.JAVA_LONG, 64), ru.get(ValueLayout.JAVA_LONG, 72),
                timeval(ru, 0), timeval(ru, 16)};
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static double timeval(MemorySegment ru, long offset) {
        return ru.get(ValueLayout.JAVA_LONG, offset) * 1e9 + ru.get(ValueLayout.JAVA_LONG, offset + 8) * 1e3;
    }
}
