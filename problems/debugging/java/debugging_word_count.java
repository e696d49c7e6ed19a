import java.util.*;

class Solution {
    public static Map<String, Integer> wordCount(String inputText) {
        Map<String, Integer> counts = new HashMap<>();
        for (String word : inputText.toLowerCase().trim().split("\\s+")) {
            if (!word.isEmpty()) counts.merge(word, 1, Integer::sum);
        }
        return counts;
    }
}
