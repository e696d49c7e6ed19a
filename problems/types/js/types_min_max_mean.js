function minMaxMean(values) {
  const sum = values.reduce((a, b) => a + b, 0);
  return [Math.min(...values), Math.max(...values), sum / values.length];
}
