function longestWord(inputText) {
  let best = '';
  for (const word of inputText.split(/\s+/)) if ([...word].length > [...best].length) best = word;
  return [[...best].length, best];
}
