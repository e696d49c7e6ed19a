((fs, path, file) => {  // runners/ts/line_of.js: the compiled file's inline source map, read once
  let lines = null;
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  function load() {
    const out = [];
    try {
      const text = fs.readFileSync(path.join(__dirname, file), 'utf8');
      const found = /sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)/.exec(text);
      if (!found) return out;
      const map = JSON.parse(Buffer.from(found[1], 'base64').toString('utf8'));
      let source = 0;
      for (const group of String(map.mappings).split(';')) {
        let first = null;
        for (const segment of group.split(',')) {
          if (!segment) continue;
          const fields = [];
          let value = 0;
          let shift = 0;
          for (const c of segment) {
            const digit = B64.indexOf(c);
            value += (digit & 31) << shift;
            if (digit & 32) { shift += 5; continue; }
            fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
            value = 0;
            shift = 0;
          }
          if (fields.length >= 4) {
            source += fields[2];
            if (first === null) first = source + 1;
          }
        }
        out.push(first);
      }
    } catch (e) { /* no map: no line */ }
    return out;
  }
  return (line) => {
    if (lines === null) lines = load();
    return lines[line - 1] || null;
  };
})(require('fs'), require('path'), CANDIDATE)
