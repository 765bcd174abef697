package io.allsum.examples.sgd;

import io.allsum.Allsum;
import io.allsum.Communicator;
import io.allsum.model.ReduceOp;

import java.util.Arrays;
import java.util.Random;

/**
 * Data-parallel SGD on a linear model y = w.x + b: every rank makes its own shard of a synthetic data set (seeded by
 * its rank), computes the mean-squared-error gradient on that shard, and all-reduces it (average) each step, so every
 * rank applies the same update and ends with the same weights. Run one process per rank with ALLSUM_SERVER,
 * ALLSUM_GROUP, ALLSUM_RANK and ALLSUM_WORLD_SIZE set (see examples/README.md). Arguments: [steps] [learning rate].
 */
public final class Main {

    /** The model the data comes from: the weights SGD should find. */
    static final double[] TRUE_WEIGHTS = {1.0, -2.0, 0.5, 3.0};
    static final double TRUE_BIAS = 0.25;
    static final double NOISE = 0.01;
    static final int SAMPLES_PER_RANK = 256;

    private Main() {
    }

    public static void main(String[] args) {
        int steps = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        double lr = args.length > 1 ? Double.parseDouble(args[1]) : 0.1;
        try (Communicator comm = Allsum.init()) {
            int d = TRUE_WEIGHTS.length;
            double[][] x = new double[SAMPLES_PER_RANK][d];
            double[] y = new double[SAMPLES_PER_RANK];
            shard(comm.rank(), x, y);
            // Every rank starts from rank 0's initial weights (here zeros, but broadcast shows the pattern).
            double[] w = comm.broadcast(new double[d + 1], 0);
            for (int step = 1; step <= steps; step++) {
                double[] grad = gradient(w, x, y);
                comm.allReduce(grad, ReduceOp.AVG);
                for (int i = 0; i <= d; i++) {
                    w[i] -= lr * grad[i];
                }
                if (step % 50 == 0 || step == steps) {
                    double loss = globalLoss(comm, w, x, y);
                    if (comm.rank() == 0) {
                        System.out.printf("step %d loss %.6e%n", step, loss);
                    }
                }
            }
            double loss = globalLoss(comm, w, x, y);
            System.out.println("rank " + comm.rank() + " of " + comm.size() + " (" + comm.backend() + ") final loss "
                    + loss + " weights " + Arrays.toString(w));
        }
    }

    /** This rank's samples: x ~ N(0, 1), y = true model + N(0, NOISE^2); seeded by rank, so reproducible. */
    static void shard(int rank, double[][] x, double[] y) {
        Random random = new Random(1000L + rank);
        for (int n = 0; n < x.length; n++) {
            double target = TRUE_BIAS;
            for (int i = 0; i < x[n].length; i++) {
                x[n][i] = random.nextGaussian();
                target += TRUE_WEIGHTS[i] * x[n][i];
            }
            y[n] = target + NOISE * random.nextGaussian();
        }
    }

    /** d(MSE)/d(w, b) on this shard; the last element is the bias's. */
    static double[] gradient(double[] w, double[][] x, double[] y) {
        int d = w.length - 1;
        double[] g = new double[d + 1];
        for (int n = 0; n < x.length; n++) {
            double err = predict(w, x[n]) - y[n];
            for (int i = 0; i < d; i++) {
                g[i] += 2 * err * x[n][i] / x.length;
            }
            g[d] += 2 * err / x.length;
        }
        return g;
    }

    /** The mean squared error over every rank's samples: the sums all-reduced, then divided. */
    static double globalLoss(Communicator comm, double[] w, double[][] x, double[] y) {
        double[] sums = new double[2];
        for (int n = 0; n < x.length; n++) {
            double err = predict(w, x[n]) - y[n];
            sums[0] += err * err;
        }
        sums[1] = x.length;
        comm.allReduce(sums, ReduceOp.SUM);
        return sums[0] / sums[1];
    }

    private static double predict(double[] w, double[] x) {
        double p = w[w.length - 1];
        for (int i = 0; i < x.length; i++) {
            p += w[i] * x[i];
        }
        return p;
    }
}
