import java.util.*;

class Solution {
    public static List<Double> minMaxMean(List<Double> values) {
        double lo = Collections.min(values), hi = Collections.max(values), sum = 0;
        for (double v : values) sum += v;
        return List.of(lo, hi, sum / values.size());
    }
}
