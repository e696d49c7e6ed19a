import java.util.*;

class Solution {
    public static List<List<Long>> splitEvenOdd(List<Long> nums) {
        List<Long> evens = new ArrayList<>(), odds = new ArrayList<>();
        for (long v : nums) (v % 2 == 0 ? evens : odds).add(v);
        return List.of(evens, odds);
    }
}
