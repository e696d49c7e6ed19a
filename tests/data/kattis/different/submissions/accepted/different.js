const lines = require("fs").readFileSync(0, "utf8").trim().split("\n");
for (const line of lines) {
    const [a, b] = line.split(" ").map(BigInt);
    console.log((a > b ? a - b : b - a).toString());
}
