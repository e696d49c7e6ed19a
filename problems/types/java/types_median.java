import java.util.*;

class Solution {
    public static Optional<Double> medianOrNone(List<Double> values) {
        if (values.isEmpty()) return Optional.empty();
        List<Double> s = new ArrayList<>(values);
        Collections.sort(s);
        int mid = s.size() / 2;
        return Optional.of(s.size() % 2 == 1 ? s.get(mid) : (s.get(mid - 1) + s.get(mid)) / 2);
    }
}
