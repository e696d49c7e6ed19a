function groupByLength(wordList) {
  const groups = new Map();
  for (const word of wordList) {
    if (!groups.has(word.length)) groups.set(word.length, []);
    groups.get(word.length).push(word);
  }
  return groups;
}
