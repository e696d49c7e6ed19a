'use strict';
// The judge's jest runner (judge/languages/jest.py): runs jest in band on one test file, in a
// child process, and exits 0 only when jest exits 0 AND the judge's reporter (reporter.js)
// says, in a line carrying this run's nonce, that every test passed and there was at least
// one. The nonce goes to the reporter through a pipe (fd 4) it reads and closes before any
// test is loaded; the tests never see it, so a test that exits early (process.exit(0)) or
// prints jest's summary itself cannot pass.
//   node run.js JEST_HOME BUILD_DIR TMP_DIR TEST_FILE HEAP_MB
const childProcess = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const [home, build, tmp, testFile, heap] = process.argv.slice(2);
const modules = path.join(home, 'node_modules');
const nonce = crypto.randomBytes(16).toString('hex');
const config = {
  rootDir: build,
  roots: [build],
  testMatch: ['**/*.test.[jt]s?(x)', '**/*.spec.[jt]s?(x)'],
  testPathIgnorePatterns: ['/node_modules/'],
  testEnvironment: path.join(modules, 'jest-environment-node'),
  transform: {
    '\\.[cm]?[jt]sx?$': [path.join(modules, 'babel-jest'), {
      babelrc: false, configFile: false,
      presets: [[path.join(modules, '@babel/preset-env'), {targets: {node: 'current'}}],
                path.join(modules, '@babel/preset-typescript')]}],
  },
  modulePaths: [modules, '/usr/share/nodejs'],
  haste: {forceNodeFilesystemAPI: true},
  watchman: false,
  cacheDirectory: path.join(tmp, 'jest-cache'),
  maxWorkers: 1,
  reporters: ['default', path.join(home, 'judge', 'reporter.js')],
};
fs.mkdirSync(tmp, {recursive: true});
const env = Object.assign({}, process.env, {CI: 'true', FORCE_COLOR: '0', NO_COLOR: '1',
                                            BROWSERSLIST_IGNORE_OLD_DATA: '1',
                                            BASELINE_BROWSER_MAPPING_IGNORE_OLD_DATA: '1'});
const child = childProcess.spawn(process.execPath, [
  '--max-old-space-size=' + heap, '--stack-size=4000',
  path.join(modules, 'jest', 'bin', 'jest.js'), '--config', JSON.stringify(config),
  '--runInBand', '--ci', '--no-watchman', '--colors=false', '--runTestsByPath',
  path.join(build, testFile)], {cwd: build, env: env,
                                 stdio: ['inherit', 'inherit', 'pipe', 'pipe', 'pipe']});
child.stdio[4].end(nonce + '\n');
// jest's standard error (its report, and the tests' own) is held and written after the
// runner's verdict line, so that line is always the first of standard error: the judge's
// message, which a test cannot write before (at most ERR_BYTES of it are kept)
const ERR_BYTES = 1 << 20;
const errChunks = [];
let errSize = 0;
child.stdio[2].on('data', (chunk) => {
  if (errSize < ERR_BYTES) {
    errChunks.push(chunk.subarray(0, ERR_BYTES - errSize));
    errSize += chunk.length;
  }
});
const chunks = [];
let size = 0;
child.stdio[3].on('data', (chunk) => {
  if (size < (1 << 20)) {
    chunks.push(chunk);
    size += chunk.length;
  }
});

function summary() {
  for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
    if (line.indexOf(nonce) < 0) continue;
    try {
      const record = JSON.parse(line);
      if (record.nonce === nonce) return record;
    } catch (error) {
      return null;
    }
  }
  return null;
}

let finished = false;
function finish(code, signal) {
  if (finished) return;
  finished = true;
  const record = summary();
  let verdict;
  if (signal) {
    verdict = 'jest was killed by ' + signal;
  } else if (record === null) {
    verdict = 'jest ended (exit status ' + code + ') without its summary: the tests did not ' +
              'finish (an early process.exit, or jest failed to start)';
  } else if (record.failed) {
    const first = record.failures.find((f) => !f.suite) || record.failures[0] || {};
    verdict = record.failed + ' of ' + record.total + ' tests failed: ' + first.name + ': ' +
              first.message;
  } else if (record.brokenSuites || record.failedSuites) {
    const first = record.failures[0] || {};
    verdict = 'the test file failed to run: ' + (first.message || 'no reason given');
  } else if (!record.total) {
    verdict = 'no tests were run (the file defines no test)';
  } else if (record.passed !== record.total) {
    verdict = (record.total - record.passed) + ' of ' + record.total + ' tests were skipped ' +
              'or left to do';
  } else if (code !== 0) {
    verdict = 'jest exited with status ' + code + ' after its tests';
  }
  const line = verdict === undefined
    ? 'jest: ' + record.passed + ' of ' + record.total + ' tests passed'
    : 'jest: ' + verdict.replace(/\s+/g, ' ').slice(0, 1000);
  let held = Buffer.concat(errChunks);
  if (errSize > ERR_BYTES) held = Buffer.concat([held, Buffer.from('\n[jest: standard error cut at 1 MiB]\n')]);
  writeAll(2, Buffer.concat([Buffer.from(line + '\n'), held]));
  process.exit(verdict === undefined ? 0 : (code && !signal ? code : 1));
}

function writeAll(fd, data) {
  let done = 0;
  while (done < data.length) {
    try {
      done += fs.writeSync(fd, data, done, data.length - done);
    } catch (error) {
      if (error.code !== 'EAGAIN') return;
    }
  }
}
child.on('exit', (code, signal) => {
  // the pipes may still hold data (a test's own children may hold them open): read them to
  // their end, or a moment, before judging
  let open = [2, 3].filter((fd) => !child.stdio[fd].readableEnded);
  if (!open.length) return finish(code, signal);
  for (const fd of open) {
    child.stdio[fd].on('close', () => {
      open = open.filter((other) => other !== fd);
      if (!open.length) finish(code, signal);
    });
  }
  setTimeout(() => finish(code, signal), 1000).unref();
});
child.on('error', (error) => {
  writeAll(2, Buffer.from('jest: could not start: ' + error.message + '\n'));
  process.exit(1);
});
for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(name, () => {
    child.kill('SIGKILL');
    process.exit(1);
  });
}
