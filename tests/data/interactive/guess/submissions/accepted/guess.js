const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
let lo = 1, hi = 1000, mid = 500;
console.log(mid);
rl.on("line", (reply) => {
  reply = reply.trim();
  if (reply === "correct") { rl.close(); return; }
  if (reply === "lower") hi = mid - 1; else lo = mid + 1;
  mid = Math.floor((lo + hi) / 2);
  console.log(mid);
});
