import java.util.*;

class Solution {
    public static List<Object> longestWord(String inputText) {
        String best = "";
        for (String word : inputText.trim().split("\\s+")) {
            if (word.codePointCount(0, word.length()) > best.codePointCount(0, best.length())) best = word;
        }
        return List.of((long) best.codePointCount(0, best.length()), best);
    }
}
