function commonElements(firstNums, secondNums) {
  const first = new Set(firstNums);
  return new Set(secondNums.filter((x) => first.has(x)));
}
