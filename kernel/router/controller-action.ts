import type { ControllerClass } from '../types.js'

/**
 * True when `name` is a method a request may invoke on instances of `controller`: an own or
 * inherited prototype method, never `constructor`, an accessor, or anything from `Object.prototype`
 * (`toString`, `__proto__`, `hasOwnProperty`), since legacy action names come from the URL.
 */
export function hasAction(controller: ControllerClass, name: string): boolean {
  if (name === '' || name === 'constructor') return false
  let proto: unknown = controller.prototype
  while (proto !== null && proto !== undefined && proto !== Object.prototype) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name)
    if (descriptor !== undefined) return typeof descriptor.value === 'function'
    proto = Object.getPrototypeOf(proto)
  }
  return false
}
