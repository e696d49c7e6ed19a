import java.util.*;

class Solution {
    public static List<List<Long>> mergeIntervals(List<List<Long>> intervals) {
        List<List<Long>> sorted = new ArrayList<>(intervals);
        sorted.sort(Comparator.comparing((List<Long> iv) -> iv.get(0)).thenComparing(iv -> iv.get(1)));
        List<List<Long>> merged = new ArrayList<>();
        for (List<Long> iv : sorted) {
            if (!merged.isEmpty() && iv.get(0) <= merged.get(merged.size() - 1).get(1)) {
                List<Long> last = merged.get(merged.size() - 1);
                last.set(1, Math.max(last.get(1), iv.get(1)));
            } else {
                merged.add(new ArrayList<>(iv));
            }
        }
        return merged;
    }
}
