function editDistance(sourceWord, targetWord) {
  let prev = Array.from({ length: targetWord.length + 1 }, (_, j) => j);
  for (let i = 1; i <= sourceWord.length; i++) {
    const cur = [i];
    for (let j = 1; j <= targetWord.length; j++) {
      cur.push(Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (sourceWord[i - 1] !== targetWord[j - 1] ? 1 : 0)));
    }
    prev = cur;
  }
  return prev[targetWord.length];
}
