class Solution {
    public static String caesarShift(String message, long shift) {
        int k = (int) (((shift % 26) + 26) % 26);
        StringBuilder out = new StringBuilder();
        for (char ch : message.toCharArray()) {
            if (ch >= 'a' && ch <= 'z') out.append((char) ('a' + (ch - 'a' + k) % 26));
            else if (ch >= 'A' && ch <= 'Z') out.append((char) ('A' + (ch - 'A' + k) % 26));
            else out.append(ch);
        }
        return out.toString();
    }
}
