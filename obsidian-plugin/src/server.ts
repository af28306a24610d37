// Starting `reme-workbench serve` for the vault when none runs, and stopping what the
// plugin started when Obsidian closes (a server the person started stays theirs).
import { spawn, type ChildProcess } from "child_process";

export class ServerProcess {
  private child: ChildProcess | null = null;
  private output = "";
  exited: number | null = null;

  /** Start `<command> --vault <vault> serve`; the server writes .reme/serve.json when it
   * listens. Throws when the program cannot be started, saying where to set its path. */
  start(command: string, vault: string): void {
    this.stop();
    this.output = "";
    this.exited = null;
    const child = spawn(command, ["--vault", vault, "serve"], {
      cwd: vault, stdio: ["ignore", "pipe", "pipe"], windowsHide: true,
    });
    child.stdout?.on("data", (data: Buffer) => this.keep(data));
    child.stderr?.on("data", (data: Buffer) => this.keep(data));
    child.on("exit", (code) => {
      this.exited = code ?? -1;
      if (this.child === child) this.child = null;
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      this.exited = -1;
      this.output += error.code === "ENOENT"
        ? `\`${command}\` was not found; give its full path in Settings → reme-workbench ` +
          "(e.g. /home/you/.venv/bin/reme-workbench)."
        : error.message;
      if (this.child === child) this.child = null;
    });
    this.child = child;
  }

  get running(): boolean {
    return this.child !== null && this.exited === null;
  }

  /** The end of what the server printed: why it stopped, when it did. */
  get lastWords(): string {
    return this.output.trim().split("\n").slice(-3).join("\n");
  }

  stop(): void {
    if (this.child && this.exited === null) this.child.kill("SIGTERM");
    this.child = null;
  }

  private keep(data: Buffer): void {
    this.output = (this.output + data.toString("utf8")).slice(-4000);
  }
}
