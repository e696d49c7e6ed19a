import java.util.*;

class Solution {
    public static List<Long> primeFactors(long numberValue) {
        List<Long> factors = new ArrayList<>();
        long remaining = numberValue;
        for (long d = 2; d * d <= remaining; d += (d == 2 ? 1 : 2)) {
            while (remaining % d == 0) {
                factors.add(d);
                remaining /= d;
            }
        }
        if (remaining > 1) factors.add(remaining);
        return factors;
    }
}
