import { describe, it, expect } from 'vitest';
import { MessageChannel } from 'node:worker_threads';
import { RpcClient, rpcFail, rpcReply, type RpcRequest } from './rpc.js';

type Req = { t: 'add'; a: number; b: number } | { t: 'boom' } | { t: 'slow' };

/** A server on `port` that adds, fails on 'boom', answers 'slow' after the next request, and notifies. */
function serve(port: MessageChannel['port2']): void {
  let held: number | null = null;
  port.on('message', (m: RpcRequest<Req>) => {
    if (m.t === 'add') {
      rpcReply(port, m.id, m.a + m.b);
      if (held !== null) rpcReply(port, held, -1);
      port.postMessage({ t: 'n', note: `added ${m.a}` });
    } else if (m.t === 'boom') rpcFail(port, m.id, { message: 'no', code: '23505' });
    else held = m.id;
  });
}

describe('RpcClient', () => {
  it('matches replies to requests by id, out of order, and passes other messages on', async () => {
    const { port1, port2 } = new MessageChannel();
    serve(port2);
    const notes: string[] = [];
    const rpc = new RpcClient<Req, number, { t: 'n'; note: string }>(port1, {
      peer: 'the test server',
      onOther: (m) => notes.push(m.note),
    });
    const slow = rpc.call({ t: 'slow' });
    expect(await rpc.call({ t: 'add', a: 2, b: 3 })).toBe(5);
    expect(await slow).toBe(-1);
    await expect(rpc.call({ t: 'boom' })).rejects.toThrow('no');
    expect(notes).toEqual(['added 2']);
    rpc.close();
    port2.close();
  });

  it("turns a failure's fields into the caller's error type", async () => {
    const { port1, port2 } = new MessageChannel();
    serve(port2);
    class CodedError extends Error {
      constructor(readonly code: string) {
        super(code);
      }
    }
    const rpc = new RpcClient<Req, number>(port1, {
      peer: 'the test server',
      toError: (f) => new CodedError(String(f.code)),
    });
    await expect(rpc.call({ t: 'boom' })).rejects.toEqual(new CodedError('23505'));
    rpc.close();
    port2.close();
  });

  it('fails pending requests when the other end closes, and new ones at once', async () => {
    const { port1, port2 } = new MessageChannel();
    serve(port2);
    const rpc = new RpcClient<Req, number>(port1, { peer: 'the test server' });
    const pending = rpc.call({ t: 'slow' });
    port2.close();
    await expect(pending).rejects.toThrow('the test server has closed');
    await expect(rpc.call({ t: 'add', a: 1, b: 1 })).rejects.toThrow('the connection to the test server is closed');
  });
});
