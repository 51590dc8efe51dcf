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
;;
;; Review from the editor: `cairn-review' lists the candidates awaiting review, `cairn-accept' merges
;; one into main and `cairn-reject' rejects one with a reason, as `cairn accept' and `cairn reject'
;; do in a terminal.  When an accept needs a person's word (the candidate changes cairn.yaml, or
;; repeats a text a person rejected), the server asks in the minibuffer; only "Accept anyway" goes
;; on.

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

(defclass cairn-eglot-server (eglot-lsp-server) ()
  :documentation "A connection to the Cairn language server.")

;; Eglot answers the server's questions (window/showMessageRequest) with `completing-read' but does
;; not declare it, and the server asks only clients that declare it: say so for Cairn's server.
(cl-defmethod eglot-client-capabilities :around ((_server cairn-eglot-server))
  (let* ((caps (cl-call-next-method))
         (window (plist-get caps :window)))
    (plist-put caps :window
               (plist-put window :showMessage
                          '(:messageActionItem (:additionalPropertiesSupport :json-false))))))

;; A function contact, so that changing `cairn-command' takes effect without reloading.
(add-to-list 'eglot-server-programs
             (cons cairn-major-modes (lambda (&rest _) (cons 'cairn-eglot-server cairn-command))))

(defun cairn-store-root (&optional file)
  "The Cairn store holding FILE (default: the visited file), or nil."
  (let ((file (or file buffer-file-name)))
    (and file (locate-dominating-file file "cairn.yaml"))))

;;;###autoload
(defun cairn-eglot-ensure ()
  "Start Eglot with the Cairn server if the buffer visits a file in a store."
  (when (cairn-store-root)
    (eglot-ensure)))

(defun cairn--server ()
  "The Cairn server of the current buffer, or an error that says how to start one."
  (let ((server (eglot-current-server)))
    (unless (cl-typep server 'cairn-eglot-server)
      (user-error "No Cairn language server for this buffer (visit a file in a store; M-x eglot)"))
    server))

(defun cairn--execute (command &rest arguments)
  "Run the server's COMMAND with ARGUMENTS and return its answer."
  (jsonrpc-request (cairn--server) :workspace/executeCommand
                   (list :command command :arguments (vconcat arguments))))

(defun cairn--candidates ()
  "The candidates awaiting review, as the server lists them (plists)."
  (append (cairn--execute "cairn.review") nil))

(defun cairn--read-candidate (prompt)
  "Read a candidate's id (or branch, when an id has several proposals) with PROMPT."
  (let ((picks (mapcar (lambda (c) (plist-get c :pick)) (cairn--candidates))))
    (unless picks (user-error "No candidates await review"))
    (completing-read prompt picks nil t)))

;;;###autoload
(defun cairn-review ()
  "Show the candidates awaiting review in the buffer *cairn-review*."
  (interactive)
  (let ((candidates (cairn--candidates)))
    (with-current-buffer (get-buffer-create "*cairn-review*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (if (null candidates)
            (insert "No candidates await review.\n")
          (dolist (c candidates)
            (insert (format "%s  %s\n  by %s on %s: %s\n  changes: %s\n"
                            (plist-get c :pick) (plist-get c :title) (plist-get c :author)
                            (plist-get c :date) (plist-get c :reason)
                            (mapconcat #'identity (append (plist-get c :paths) nil) ", ")))
            (when (plist-get c :flagged)
              (insert (format "  flagged: %s\n" (plist-get c :flagged))))
            (insert "\n"))))
      (special-mode)
      (display-buffer (current-buffer)))
    candidates))

;;;###autoload
(defun cairn-accept (id)
  "Accept the candidate ID: merge its branch into main."
  (interactive (list (cairn--read-candidate "Accept candidate: ")))
  (let ((result (cairn--execute "cairn.accept" id)))
    (message "cairn: accepted %s%s" id
             (if (eq (plist-get result :alreadyMerged) t) " (it was already merged)" ""))
    result))

;;;###autoload
(defun cairn-reject (id reason)
  "Reject the candidate ID, saying REASON (kept in the rejection tag)."
  (interactive (list (cairn--read-candidate "Reject candidate: ")
                     (read-string "Why (kept with the rejection): ")))
  (let ((result (cairn--execute "cairn.reject" id reason)))
    (message "cairn: rejected %s" id)
    result))

(provide 'cairn)
;;; cairn.el ends here
