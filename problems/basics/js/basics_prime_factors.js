function primeFactors(numberValue) {
  const factors = [];
  let remaining = numberValue;
  for (let d = 2; d * d <= remaining; d += d === 2 ? 1 : 2) {
    while (remaining % d === 0) { factors.push(d); remaining /= d; }
  }
  if (remaining > 1) factors.push(remaining);
  return factors;
}
