/** SPEC §14: does anything on this machine listen on a port? A connection attempt on loopback says. */
import { connect } from 'node:net';

const probe = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (listening: boolean) => {
      socket.destroy();
      resolve(listening);
    };
    socket.setTimeout(500, () => done(true));
    socket.once('connect', () => done(true));
    // Refused (or no such address on this machine): nobody listens there.
    socket.once('error', () => done(false));
  });

export const machinePorts = {
  async listening(port: number): Promise<boolean> {
    return (await probe('127.0.0.1', port)) || (await probe('::1', port));
  },
};
