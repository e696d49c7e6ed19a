const splitEvenOdd = (nums) => [nums.filter((v) => v % 2 === 0), nums.filter((v) => v % 2 !== 0)];
