function pascalRow(rowIndex) {
  const row = [1];
  for (let k = 0; k < rowIndex; k++) row.push((row[row.length - 1] * (rowIndex - k)) / (k + 1));
  return row;
}
