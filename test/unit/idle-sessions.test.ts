import { IdleSessions } from '../../src/http/idle-sessions.js';

describe('IdleSessions', () => {
  const expired: string[] = [];
  const idle = new IdleSessions(0, (id) => void expired.push(id));
  // A zero idleMs starts no timer; sweep() with a clock of our own stands for it.
  const sessions = new IdleSessions(1000, (id) => void expired.push(id));
  afterAll(() => {
    idle.stop();
    sessions.stop();
  });
  beforeEach(() => (expired.length = 0));

  test('ends a session with nothing open once it has been silent for idleMs, and only once', () => {
    const end = sessions.begin('a');
    // The clock may tick between the end and either reading: silence is at most 999 ms from `before`, at least
    // 1000 ms from `after`.
    const before = Date.now();
    end();
    const after = Date.now();
    sessions.sweep(before + 999);
    expect(expired).toEqual([]);
    sessions.sweep(after + 1000);
    expect(expired).toEqual(['a']);
    sessions.sweep(after + 5000);
    expect(expired).toEqual(['a']);
  });

  test('keeps a session while any of its requests or streams is open, and counts silence from the last one to end', () => {
    const post = sessions.begin('b');
    const stream = sessions.begin('b');
    post();
    post();
    sessions.sweep(Date.now() + 10_000);
    expect(expired).toEqual([]);
    stream();
    const ended = Date.now();
    sessions.sweep(ended + 500);
    expect(expired).toEqual([]);
    sessions.sweep(ended + 1000);
    expect(expired).toEqual(['b']);
  });

  test('forgets a session that ended by itself', () => {
    sessions.begin('c')();
    sessions.forget('c');
    sessions.sweep(Date.now() + 10_000);
    expect(expired).toEqual([]);
  });
});
