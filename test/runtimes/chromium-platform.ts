/** The one platform `@sparticuz/chromium` ships a binary for (it is built for AWS Lambda). */
export const CHROMIUM_PLATFORM = "linux-x64";

export function chromiumShipped(): boolean {
  return `${process.platform}-${process.arch}` === CHROMIUM_PLATFORM;
}
