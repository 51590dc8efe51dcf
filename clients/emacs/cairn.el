;;; cairn.el --- Cairn memory stores in Emacs, through Eglot  -*- lexical-binding: t -*-

;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: tools, languages
;; URL: see clients/README.md in the Cairn repository

;;; Commentary:

;; Registers `cairn lsp --stdio' with Eglot for markdown buffers and starts it only for files
;; inside a Cairn store (a folder upward holding cairn.yaml):
;;
;;   (require 'cairn)
;;   (add-hook 'markdown-mode-hook #'cairn-eglot-ensure)
;;   (add-hook 'gfm-mode-hook #'cairn-eglot-ensure)
;;
;; Diagnostics show through Flymake, completion through completion-at-point, and search by meaning
;; through `xref-find-apropos' (workspace symbols).

;;; Code:

(require 'eglot)

(defgroup cairn nil
  "Cairn memory stores."
  :group 'tools)

(defcustom cairn-command '("cairn" "lsp" "--stdio")
  "Command that starts the Cairn language server, as a list of strings."
  :type '(repeat string))

(defcustom cairn-major-modes '(markdown-mode gfm-mode)
  "Major modes in which Eglot uses the Cairn server."
  :type '(repeat symbol))

;; A function contact, so that changing `cairn-command' takes effect without reloading.
(add-to-list 'eglot-server-programs (cons cairn-major-modes (lambda (&rest _) cairn-command)))

(defun cairn-store-root (&optional file)
  "The Cairn store holding FILE (default: the visited file), or nil."
  (let ((file (or file buffer-file-name)))
    (and file (locate-dominating-file file "cairn.yaml"))))

;;;###autoload
(defun cairn-eglot-ensure ()
  "Start Eglot with the Cairn server if the buffer visits a file in a store."
  (when (cairn-store-root)
    (eglot-ensure)))

(provide 'cairn)
;;; cairn.el ends here
