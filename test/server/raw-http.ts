import { connect, type Socket } from 'node:net';

/** A server's answer as read off the socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent, interim responses (100 Continue) included. */
  raw: string;
}

export interface RawClient {
  socket: Socket;
  /** The final answer, once its whole body (by `Content-Length`, else until the server closes) has come. */
  answer: Promise<RawAnswer>;
  closed: Promise<void>;
  /** What came so far. */
  received(): string;
}

/**
 * A raw HTTP/1.1 client on loopback, for requests no well-behaved client would send: it writes `text` as is (more
 * can be written on `socket` when the test says) and reads the answer as it comes.
 */
export function rawRequest(port: number, text: string): RawClient {
  const socket = connect(port, '127.0.0.1');
  let data = Buffer.alloc(0);
  let settled = false;
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    const read = (ended: boolean): void => {
      if (settled) return;
      const parsed = parseAnswer(data, ended);
      if (!parsed) return;
      settled = true;
      resolve(parsed);
    };
    socket.on('data', (d: Buffer) => {
      data = Buffer.concat([data, d]);
      read(false);
    });
    socket.on('end', () => read(true));
    socket.on('close', () => read(true));
    socket.on('error', (e) => {
      read(true);
      if (!settled && data.length === 0) {
        settled = true;
        reject(e);
      }
    });
  });
  answer.catch(() => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(text);
  return { socket, answer, closed, received: () => data.toString('latin1') };
}

/** Send `text` as is and read the one answer. */
export async function exchange(port: number, text: string): Promise<RawAnswer> {
  const client = rawRequest(port, text);
  try {
    return await client.answer;
  } finally {
    client.socket.destroy();
  }
}

/** The final answer in `data`, or null while it is not all there (`ended`: no more will come). */
function parseAnswer(data: Buffer, ended: boolean): RawAnswer | null {
  const raw = data.toString('latin1');
  const interim = /^(HTTP\/1\.1 1\d\d [^\r\n]*\r\n\r\n)*/.exec(raw)![0].length;
  const end = raw.indexOf('\r\n\r\n', interim);
  if (end < 0) return null;
  const [statusLine, ...headerLines] = raw.slice(interim, end).split('\r\n');
  const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const body = data.subarray(end + 4);
  const length = headers['content-length'];
  if (length === undefined ? !ended : body.length < Number(length)) return null;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8'), raw };
}
