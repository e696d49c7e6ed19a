import java.util.*;

class Solution {
    public static Set<Long> commonElements(List<Long> firstNums, List<Long> secondNums) {
        Set<Long> out = new HashSet<>(firstNums);
        out.retainAll(new HashSet<>(secondNums));
        return out;
    }
}
