class Solution {
    public static int editDistance(String sourceWord, String targetWord) {
        int[] prev = new int[targetWord.length() + 1];
        for (int j = 0; j < prev.length; j++) prev[j] = j;
        for (int i = 1; i <= sourceWord.length(); i++) {
            int[] cur = new int[prev.length];
            cur[0] = i;
            for (int j = 1; j < prev.length; j++) {
                int cost = sourceWord.charAt(i - 1) == targetWord.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + cost);
            }
            prev = cur;
        }
        return prev[targetWord.length()];
    }
}
