function caesarShift(message, shift) {
  const k = ((shift % 26) + 26) % 26;
  let out = '';
  for (const ch of message) {
    const c = ch.charCodeAt(0);
    if (c >= 97 && c <= 122) out += String.fromCharCode(((c - 97 + k) % 26) + 97);
    else if (c >= 65 && c <= 90) out += String.fromCharCode(((c - 65 + k) % 26) + 65);
    else out += ch;
  }
  return out;
}
