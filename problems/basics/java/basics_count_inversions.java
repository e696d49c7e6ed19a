import java.util.*;

class Solution {
    private long count = 0;

    private int[] sort(int[] v) {
        if (v.length <= 1) return v;
        int mid = v.length / 2;
        int[] left = sort(Arrays.copyOfRange(v, 0, mid));
        int[] right = sort(Arrays.copyOfRange(v, mid, v.length));
        int[] out = new int[v.length];
        int i = 0, j = 0, k = 0;
        while (i < left.length && j < right.length) {
            if (left[i] <= right[j]) out[k++] = left[i++];
            else { count += left.length - i; out[k++] = right[j++]; }
        }
        while (i < left.length) out[k++] = left[i++];
        while (j < right.length) out[k++] = right[j++];
        return out;
    }

    public long countInversions(int[] nums) {
        sort(nums);
        return count;
    }
}
