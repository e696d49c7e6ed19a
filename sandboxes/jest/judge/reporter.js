'use strict';
// The judge's jest reporter (judge/languages/jest.py): jest's own counts, written once the run
// is complete to fd 3 (a pipe to run.js), in a line that carries the per-run nonce run.js
// wrote to fd 4 and closed. It reads the nonce and closes fd 4 when jest creates it, before
// any test file is loaded: a test cannot read it, so a line it writes to fd 3 is never taken.
const fs = require('fs');
const write = fs.writeSync, close = fs.closeSync, stringify = JSON.stringify;

let nonce = '';
try {
  nonce = fs.readFileSync(4, 'utf8').trim();
  fs.closeSync(4);
} catch (error) {
  nonce = '';
}

function firstLines(text, count) {
  // a failure message without its colours, its first lines (the assertion), bounded
  const plain = String(text || '').replace(/\u001b\[[0-9;]*m/g, '');
  return plain.replace(/^\s*Error: /, '').split('\n').map((line) => line.trim()).filter((line) => line &&
    !line.startsWith('at ')).slice(0, count).join(' ').slice(0, 400);
}

class JudgeReporter {
  onRunComplete(contexts, results) {
    const failures = [];
    for (const suite of results.testResults || []) {
      if (suite.testExecError || suite.failureMessage && !(suite.testResults || []).length) {
        failures.push({suite: true, name: suite.testFilePath.split('/').pop(),
                       message: firstLines(suite.failureMessage ||
                                           (suite.testExecError || {}).message, 3)});
      }
      for (const test of suite.testResults || []) {
        if (test.status === 'failed') {
          failures.push({name: (test.ancestorTitles || []).concat([test.title]).join(' › '),
                         message: firstLines((test.failureMessages || []).join('\n'), 4)});
        }
      }
    }
    const record = {nonce: nonce, total: results.numTotalTests, passed: results.numPassedTests,
                    failed: results.numFailedTests, pending: results.numPendingTests,
                    todo: results.numTodoTests,
                    brokenSuites: results.numRuntimeErrorTestSuites,
                    failedSuites: results.numFailedTestSuites, failures: failures.slice(0, 20)};
    try {
      write(3, '\n' + stringify(record) + '\n');
      close(3);
    } catch (error) {
      // fd 3 closed by a test: no result, so no pass
    }
  }

  getLastError() {
    return undefined;
  }
}

module.exports = JudgeReporter;
