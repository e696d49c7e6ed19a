import java.util.*;

class Solution {
    public static Map<Long, List<String>> groupByLength(List<String> wordList) {
        Map<Long, List<String>> groups = new LinkedHashMap<>();
        for (String word : wordList) {
            groups.computeIfAbsent((long) word.codePointCount(0, word.length()), k -> new ArrayList<>()).add(word);
        }
        return groups;
    }
}
