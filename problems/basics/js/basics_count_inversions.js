function countInversions(nums) {
  const sortCount = (values) => {
    if (values.length <= 1) return [values, 0];
    const mid = values.length >> 1;
    const [left, a] = sortCount(values.slice(0, mid));
    const [right, b] = sortCount(values.slice(mid));
    const merged = [];
    let count = a + b, i = 0, j = 0;
    while (i < left.length && j < right.length) {
      if (left[i] <= right[j]) merged.push(left[i++]);
      else { merged.push(right[j++]); count += left.length - i; }
    }
    return [merged.concat(left.slice(i), right.slice(j)), count];
  };
  return sortCount(nums)[1];
}
