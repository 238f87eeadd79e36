import { cpus, loadavg, platform, release, totalmem } from 'node:os';

export interface MachineInfo {
  cpus: number;
  cpu_model: string;
  mem_gb: number;
  node: string;
  platform: string;
  date: string;
  /** 1-minute load average when the run started: a hint of how busy the shared machine was. */
  load_avg_1m: number;
}

export function machineInfo(): MachineInfo {
  const c = cpus();
  return {
    cpus: c.length,
    cpu_model: c[0]?.model.trim() ?? 'unknown',
    mem_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${platform()} ${release()}`,
    date: new Date().toISOString(),
    load_avg_1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}
