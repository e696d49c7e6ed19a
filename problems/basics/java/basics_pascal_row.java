import java.util.*;

class Solution {
    public static List<Long> pascalRow(long rowIndex) {
        List<Long> row = new ArrayList<>(List.of(1L));
        for (long k = 0; k < rowIndex; k++) row.add(row.get(row.size() - 1) * (rowIndex - k) / (k + 1));
        return row;
    }
}
