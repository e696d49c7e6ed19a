function wordCount(inputText) {
  const counts = {};
  for (const word of inputText.toLowerCase().split(/\s+/).filter(Boolean)) {
    counts[word] = (counts[word] || 0) + 1;
  }
  return counts;
}
